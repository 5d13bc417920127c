"""How `streamlit run app.py` serves, as Streamlit itself reads .streamlit/config.toml from the
repository root (the directory Community Cloud and the README's command start in)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

READ_OPTION = ("from streamlit import config\n"
               "config.get_config_options(force_reparse=True)\n"
               "print(config.get_option({name!r}))\n")


def streamlit_option(name: str) -> str:
    """The value Streamlit takes for `name` when started in the repository root."""
    done = subprocess.run([sys.executable, "-c", READ_OPTION.format(name=name)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip().splitlines()[-1]


def test_a_plain_streamlit_run_watches_no_source_files():
    """Issue 24: with Streamlit's default watcher every new session's first run walks all of
    sys.modules (over 2,100 modules with PyTorch and pandas) on the server's event loop. That made the
    first page after `streamlit run app.py` 3.4-3.9 s instead of 2.6-2.7 s (bench/bench_first_page.py
    --watcher auto / none), and each arriving learner held up every other learner's messages."""
    assert streamlit_option("server.fileWatcherType") == "none"
