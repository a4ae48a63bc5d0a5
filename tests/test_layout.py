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
    {"reward", "config", "settings", "testing"},
    {"sandbox", "llm", "task"},
    {"errors", "files", "formatting"},
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
