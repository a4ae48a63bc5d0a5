"""The stages of one iteration, each a parent-side step that runs generated code only through `workers`.

- `prompts/`: the Jinja2 templates (package data) and their one renderer.
- `env_description`: the environment description the LLM sees (Text2Reward style).
- `env_joints`, `env_hand`: its joint and actuator sections (shared axes keyed), a mocap arm's hand (stepped).
- `env_markers`: goal markers an env moves only when it renders (Fetch's `target0`, the hand's `target`), measured.
- `reset_noise`: what an env's reset draws at random, measured over a few resets where the tool does not know it.
- `env_maze`: a maze env's walls (gymnasium-robotics' PointMaze and AntMaze), as a map with its cell coordinates.
- `env_chains`: a hand's joint table grouped by finger (shared facts once, fingers alike named once).
- `obs_labels`: the observation layout of a MuJoCo env, found by matching obs elements against state quantities.
- `obs_layouts`: documented observation/action layouts of non-MuJoCo and mocap envs, the source fallback, manipulation notes.
- `env_facts`: what the parent asks of a task's env once (discrete action, ends only at its goal).
- `designer`, `extract`: prompting the LLM for reward files and pulling the code out of its replies.
- `worked_example`: one checked example reward of a task of the same family with another objective, shown as
  illustrative.
- `design_emphasis`: a distinct design emphasis per sample of a round (minimal, staged, potential-based).
- `history`: what the designer is shown of earlier iterations (the best, other candidates as diffs, the table).
- `critic`: static, dynamic (sandboxed smoke run) and semantic (LLM review) checks.
- `screen`: CARD's trajectory preference check on archived episodes, before any RL.
- `analyzer`: what a trained policy did, as statistics and feedback for the designer.
- `feedback`: the analyzer's feedback text (curves labelled as the training worker's, untrusted).
- `reflection`: judgements on trusted data for the analyzer: reward-hacking evidence, named ends, step traces.
- `run_replay`: the analyzer's sandboxed replay of a reward over the run's evaluation episodes (its own, other candidates').
- `human_feedback`: `--feedback ask|FILE`: the user's sentence or ranking after an iteration, recorded and replayed.
- `video`: policy videos, rendered in a worker and encoded here.
- `visual_feedback`: `--visual-feedback`: frames of the best and worst evaluation episodes as image parts.
"""
