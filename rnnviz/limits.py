"""Every bound on what a user can give, in one place.

Pages show these numbers where they apply; tests check each boundary on both
sides. Changing a limit here changes it everywhere.
"""
import os

MAX_TEXT_CHARS = 20_000        # characters kept from a typed or uploaded sentence
MAX_TOKENS = 200               # tokens of one sentence that the pages run (T)
MAX_UPLOAD_BYTES = 1_000_000   # a .txt upload (sentences or a training corpus)
MAX_UPLOAD_LINES = 20_000      # lines read from an upload
MAX_LINE_CHARS = 2_000         # characters shown per line in the line picker
MAX_VOCAB = 5_000              # vocabulary of a model trained in the app
MAX_HIDDEN = 128               # H
MAX_EMBED = 128                # d
MAX_TRAIN_STEPS = 5_000        # optimiser steps of one training run
MAX_TRAIN_T = 64               # sequence length used in training
MAX_BATCH = 64                 # sentences per batch
MAX_JACOBIAN_T = 512           # T accepted by the all-pairs Jacobian engine
MAX_MODEL_FILE_BYTES = 10_000_000  # an uploaded model bundle (the largest the app saves: 8.8 MB)
MAX_HASH_BUCKETS = 50_000     # word-hashing buckets a learner may ask for
MAX_HASH_WORDS = 50           # words typed into the hashing box
MAX_LR = 10.0                 # learning rate accepted by the update rules on the pages
W2V_MAX_RADIUS = 5            # Word2Vec window radius (words on each side of the centre)
W2V_MAX_NEGATIVES = 10        # Word2Vec negatives k per pair
W2V_MAX_DIM = 32              # Word2Vec vector length
W2V_MAX_STEPS = 2_000         # Word2Vec SGD steps of one run (worst case about 10 s, measured)
W2V_MAX_BATCH = 256           # Word2Vec pairs per step
W2V_MAX_LR = 0.1              # Word2Vec learning rate (0.2 already diverges on the built-in corpus)

# Serving many sessions from one process (rnnviz/serve/jobs.py, rnnviz/serve/bytecache.py)
# Deployment knobs: a host may set them in the environment (bench/bench_load.py compares them).
MAX_CONCURRENT_TRAININGS = max(1, int(os.environ.get("RNNVIZ_MAX_TRAININGS", "2")))
TRAINING_TIME_SHARE = min(1.0, max(0.05, float(os.environ.get("RNNVIZ_TRAINING_SHARE", "0.5"))))
# ONE byte budget for every per-sentence or per-model cache of the process (rnnviz.bytecache.Budget,
# ui/cache.py), LRU across all of them; an entry unused for CACHE_TTL_SECONDS expires (a sweep every
# CACHE_SWEEP_SECONDS drops it and asks glibc to give freed pages back). A host may set them.
# Memory must be back within MEMORY_BACK_SECONDS of a session leaving (issue 22): TTL + one sweep,
# and Streamlit's server.disconnectedSessionTTL (.streamlit/config.toml, the closed session's own
# state and uploads) + one sweep, both within it (a TTL of 300 s held the whole budget 5 minutes
# after the session left). An entry a connected session used stays while that session's tab is
# open (a learner reading one page for a minute finds the others' results), and expires TTL after
# the last such session leaves.
CACHE_BYTES = int(os.environ.get("RNNVIZ_CACHE_BYTES", str(256_000_000)))
CACHE_TTL_SECONDS = float(os.environ.get("RNNVIZ_CACHE_TTL", "40"))
CACHE_SWEEP_SECONDS = 10.0
CACHE_LIVE_TTL_SECONDS = 600.0  # an entry a connected session used this recently stays past CACHE_TTL
MEMORY_BACK_SECONDS = 60.0
# Page runs take turns (rnnviz/serve/turns.py): at most PAGE_RUN_SLOTS compute at once, the
# others wait, the session that used the least server time lately first; a run that has held its
# slot PAGE_LONG_RUN_SECONDS gives it to the next in line and goes on beside it (a stranger's
# largest model never holds the class); one that has waited PAGE_RUN_MAX_WAIT_SECONDS goes ahead
# anyway. 0 slots: no turns. Measured with 40 learners on one process (bench/results/load_s28.txt):
# 1 slot beats 2 (p95 0.73 against 1.04 s), a longest wait of 5 s beat 2 s.
PAGE_RUN_SLOTS = max(0, int(os.environ.get("RNNVIZ_PAGE_RUNS", "1")))
PAGE_RUN_MAX_WAIT_SECONDS = max(0.0, float(os.environ.get("RNNVIZ_PAGE_RUN_MAX_WAIT", "5")))
PAGE_LONG_RUN_SECONDS = max(0.01, float(os.environ.get("RNNVIZ_PAGE_LONG_RUN", "0.5")))
MAX_SHORT_JOBS = max(1, int(os.environ.get("RNNVIZ_MAX_SHORT_JOBS", "2")))  # the short lane's slots
# Wall-time caps (pacer sleeps included). Page 6's largest run (V = 5,000, d = H = 128, T = 64,
# batch 64) measured about 4 s per step on 2 shared cores: its 5,000 steps took ~5.5 h and held a
# slot that long. 10 minutes is ~150 such steps, or the whole of a default run (300 steps at
# ~0.02 s); the page states the cap and, from the measured rate, where the run will stop.
MAX_TRAIN_SECONDS = float(os.environ.get("RNNVIZ_MAX_TRAIN_SECONDS", "600"))
MAX_TRAIN_MINUTES = MAX_TRAIN_SECONDS / 60   # as page 6 states it
# Word2Vec's worst run (2,000 steps, batch 256, d = 32, k = 10) measured ~10 s alone, ~20 s paced:
SHORT_JOB_SECONDS = 30.0        # a short-lane job (Word2Vec, page 8's "train one now") stops here
TRACE_CACHE_BYTES = 64_000_000  # bytes of cached traces per process (byte-bounded LRU)
JACOBIAN_CACHE_BYTES = 128_000_000  # bytes of cached (T, S, S) step Jacobians per process
SESSION_STORE_BYTES = 32_000_000  # bytes of own models kept by one session
# What an uploaded model file may hold (checked before anything is unpacked or shown):
# the total size its zip directory declares (torch.save stores entries, never compresses):
MAX_MODEL_UNPACKED_BYTES = 10_000_000
MAX_MODEL_ZIP_ENTRIES = 64     # files inside the archive (a bundle has about 12)
MAX_ZIP_NAME_CHARS = 200       # length of one entry's name inside the archive
MAX_TOKEN_CHARS = 200          # characters of one vocabulary token in a model file
MAX_FILE_STRING_CHARS = 2_000  # characters of any other string in a model file
MAX_FILE_ITEMS = 20_000        # strings, numbers and containers in a model file, all told
MAX_FILE_DEPTH = 8             # nesting of dicts and lists in a model file
# pickle operations in a model file, counted before it is unpickled (a 5,000-token vocabulary
# and a full meta table take well under half; each item costs one to three operations)
MAX_FILE_PICKLE_OPS = 4 * MAX_FILE_ITEMS
# What a page draws of a V-row matrix (rnnviz.embedding.shown_rows): a vocabulary up to
# MAX_WHOLE_VOCAB rows is drawn whole (every built-in model: at most 1,718); a larger one (an own
# model, up to MAX_VOCAB) as at most MAX_SHOWN_ROWS rows (the sentence's first; the page says
# so), so a V = 5,000, d = 128 model's page stays under 400 KB.
MAX_WHOLE_VOCAB = 2_000
MAX_SHOWN_ROWS = 100
MAX_SHOWN_DIMS = 32           # columns x_k g_j of the outer-product table (every built-in: d <= 32)
MAX_SHOWN_CELLS = 2_560        # numbers of such a view's heatmap (20 rows of d = 128)
MAX_PICKER_OPTIONS = 2_000     # options of a word picker (the sentence's words first)
MAX_LABEL_CHARS = 40           # characters of a token shown as a chart label (the rest: …)
FIGURE_CACHE_ENTRIES = 256     # built figures kept per process as plain dicts (ui/cache.figure)
MATRIX_ROWS_SHOWN = 80         # rows of a V x d heatmap sent to the page (all rows: its CSV download)
# Work of one all-pairs Jacobian computation a page may start (rnnviz/engine/jacwindow.py), in units of
# S^3 * T * (T - 1) (S: the recurrent state size; 2 per multiply-add of the pairs' products).
# Chosen by measurement (bench/bench_heavy_jacobian.py, bench/results/heavy_jacobian.txt): the
# heaviest window a learner can ask for (H = 128, T = 200: Elman 38 steps, LSTM [h; c] 13 steps)
# takes about 1 s for spectral + Frobenius on one core of this shared machine (the unbounded
# job: 30 s to minutes). A longer sentence is shown on its last steps and the page says so.
MAX_JACOBIAN_WORK = 3_000_000_000
