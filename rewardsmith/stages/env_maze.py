"""A maze env's walls (gymnasium-robotics' PointMaze and AntMaze): the map as rows of walls and free cells, and
where each cell lies in the world, read from the env's own `maze`. A reward that only pays the straight-line
distance to the goal leads into a wall; with the map the designer can reward progress along the free cells."""

from __future__ import annotations

from rewardsmith.stages.obs_labels import fmt

WALL = 1


def maze_lines(base) -> list[str]:
    """The map section for an unwrapped env with a `maze` (rows from the top, +y up; `#` a wall, `.` free, `g`/`r`
    where the map fixes a goal or a reset cell), with the cell size and the centre of cell (row, column); [] for
    any other env."""
    maze = getattr(base, "maze", None)
    grid = getattr(maze, "maze_map", None)
    scale = getattr(maze, "maze_size_scaling", None)
    if maze is None or not grid or scale is None or not hasattr(maze, "x_map_center"):
        return []
    marks = {WALL: "#", 0: ".", "g": "g", "r": "r", "c": "."}
    rows = ["".join(marks.get(cell, ".") for cell in row) for row in grid]
    legend = "`#` wall, `.` free" + "".join(
        f", `{m}` {what}" for m, what in (("g", "a goal cell"), ("r", "a reset cell")) if any(m in row for row in rows)
    )
    x0, y0 = scale / 2 - maze.x_map_center, maze.y_map_center - scale / 2
    return [
        f"## Maze ({len(rows)} rows x {len(rows[0])} columns; {legend}; row 0 is the top, at the largest y)",
        f"- cells are {fmt(scale)} m square; cell (row i, column j) is centred at x = {fmt(x0)} + {fmt(scale)}·j,"
        f" y = {fmt(y0)} - {fmt(scale)}·i (m); a path between free cells goes round the walls, not through them",
        *(f"  {row}" for row in rows),
    ]
