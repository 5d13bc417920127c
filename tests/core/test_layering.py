"""The house reads top down: app.py -> pages/ -> ui/ -> rnnviz/ -> torch, no arrow back up.

rnnviz never imports streamlit (no exception) nor the ui layer; ui/ and pages/ hold no maths:
they never call torch's maths themselves (no torch.autograd, torch.linalg, torch.func, no
backward()), so every number shown comes from an rnnviz function that a core test checks."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "rnnviz"
UI_FILES = sorted((ROOT / "ui").rglob("*.py")) + sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
MATHS = ("torch.autograd", "torch.linalg", "torch.func", "torch.nn.functional")


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return names


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_core_module_imports_neither_streamlit_nor_ui(path):
    for name in imported_modules(path):
        assert name.split(".")[0] not in ("streamlit", "ui", "pages", "app"), (path, name)


def test_there_is_no_ui_helper_left_in_the_core():
    assert not (CORE / "streamlit_ui.py").exists()


def test_importing_rnnviz_does_not_load_streamlit():
    import subprocess
    import sys
    code = "import sys, rnnviz, rnnviz.bptt, rnnviz.figures, rnnviz.prose; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_ui_and_pages_hold_no_torch_maths(path):
    names = imported_modules(path)
    assert not any(n == m or n.startswith(m + ".") for n in names for m in MATHS), (path, names)
    source = path.read_text(encoding="utf-8")
    for call in (".backward(", "torch.autograd", "torch.linalg", "torch.func", "torch.matmul", "torch.softmax"):
        assert call not in source, (path, call)


@pytest.mark.parametrize("path", sorted((ROOT / "ui").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_ui_never_imports_pages_or_app(path):
    for name in imported_modules(path):
        assert name.split(".")[0] not in ("pages", "app"), (path, name)
