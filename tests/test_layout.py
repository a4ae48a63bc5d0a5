"""The layout is the architecture: each layer imports only the layers below it, and every folder says what it holds."""

from __future__ import annotations

import ast
from pathlib import Path

import rewardsmith

PACKAGE = Path(rewardsmith.__file__).parent
LAYERS = [
    {"cli"},
    {"views"},
    {"search"},
    {"stages"},
    {"workers"},
    {"run_folder"},
    {"reward", "config", "settings", "cost", "testing"},
    {"sandbox", "llm", "task"},
    {"errors", "files", "formatting", "once", "stats"},
]
"""Top to bottom; a module may import its own layer and the ones below it. `fitness` and `state` at the top
level are re-export shims for scorers in older run folders, and `__init__` is the lazy public API."""
SHIMS = {"fitness", "state", "__init__", "__main__"}


def layer_of(module: str) -> int | None:
    part = module.split(".")[1] if module.count(".") else ""
    return next((i for i, names in enumerate(LAYERS) if part in names), None)


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return [name for name in found if name.startswith("rewardsmith.")]


def test_each_layer_imports_only_the_layers_below_it():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = "rewardsmith." + path.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", ".")
        if module.split(".")[1] in SHIMS:
            continue
        own = layer_of(module)
        assert own is not None, f"{module}: not in any layer; add it to LAYERS and CONTRIBUTING.md"
        for target in imports_of(path):
            theirs = layer_of(target)
            assert theirs is not None, f"{module} imports {target}, which is in no layer"
            if theirs < own:
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


def test_every_folder_lists_its_files():
    for folder in sorted(p for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").is_file()):
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
        modules = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
        if folder == PACKAGE:
            continue
        missing = [m for m in modules if m not in doc]
        assert not missing, f"{folder.relative_to(PACKAGE)}/__init__.py does not mention {missing}"


def test_the_documented_run_folder_layout_names_every_file_and_event():
    """`run_folder/folder.py`'s docstring is the layout's documentation; every name in `run_folder/names.py` (files,
    folders, events) must appear in it, so a name cannot be added or changed without the documentation."""
    from rewardsmith.run_folder import folder, names

    doc = folder.__doc__ or ""
    missing = [
        f"{key}={value}"
        for key, constant in vars(names).items()
        if key.isupper() and key.endswith(("_FILE", "_DIR", "_NAMES"))
        for value in (constant if isinstance(constant, tuple) else (constant,))
        if value not in doc
    ]
    missing += [f"Event.{e.name}" for e in names.Event if e.value not in doc]
    assert not missing, f"run_folder/folder.py's docstring does not document {missing}"
    assert names.HEADER in (PACKAGE / "run_folder" / "names.py").read_text()


def test_run_folder_names_are_defined_only_in_names():
    """File and folder names of a run folder are defined once (`run_folder/names.py`), not again elsewhere."""
    values = {v for k, v in vars(__import__("rewardsmith.run_folder.names", fromlist=["x"])).items()
              if k.isupper() and k.endswith(("_FILE", "_DIR")) and isinstance(v, str)}
    twice = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "names.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in values:
                twice.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value.value!r}")
    assert not twice, "run folder names defined outside run_folder/names.py:\n" + "\n".join(twice)
