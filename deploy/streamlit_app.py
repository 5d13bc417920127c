"""Entry point for hosts that install the dependency file next to the entry point
(Streamlit Community Cloud): deploy/requirements.txt pulls the CPU-only PyTorch wheel.

    streamlit run deploy/streamlit_app.py      # the same app as `streamlit run app.py`

It only runs ../app.py; the app itself is unchanged.
"""
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
runpy.run_path(str(ROOT / "app.py"), run_name="__main__")
