"""rnnviz never imports streamlit, except its one named UI-helper module."""
import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "rnnviz"
UI_HELPER = "streamlit_ui.py"


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_core_module_does_not_import_streamlit(path):
    if path.name == UI_HELPER and path.parent == CORE:
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
            if node.level and any(a.name == "streamlit_ui" for a in node.names):
                names.append("streamlit_ui")
        assert not any(n.split(".")[0] in ("streamlit", "streamlit_ui") for n in names), path


def test_importing_rnnviz_does_not_load_streamlit():
    import subprocess
    import sys
    code = "import sys, rnnviz, rnnviz.bptt, rnnviz.figures; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=CORE.parent, check=True)
    assert out.stdout.strip() == "False"
