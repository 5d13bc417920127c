"""Every bound on what a user can give, in one place.

Pages show these numbers where they apply; tests check each boundary on both
sides. Changing a limit here changes it everywhere.
"""

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
MAX_MODEL_FILE_BYTES = 20_000_000  # an uploaded model bundle
MAX_HASH_BUCKETS = 50_000     # word-hashing buckets a learner may ask for
MAX_HASH_WORDS = 50           # words typed into the hashing box
MAX_LR = 10.0                 # learning rate accepted by the update rules on the pages
# What an uploaded model file may hold (checked before anything is unpacked or shown):
MAX_MODEL_UNPACKED_BYTES = 20_000_000  # total size its zip directory declares (torch.save stores, never compresses)
MAX_MODEL_ZIP_ENTRIES = 64     # files inside the archive (a bundle has about 12)
MAX_ZIP_NAME_CHARS = 200       # length of one entry's name inside the archive
MAX_TOKEN_CHARS = 200          # characters of one vocabulary token in a model file
MAX_FILE_STRING_CHARS = 2_000  # characters of any other string in a model file
MAX_FILE_ITEMS = 20_000        # strings, numbers and containers in a model file, all told
MAX_FILE_DEPTH = 8             # nesting of dicts and lists in a model file
MAX_LABEL_CHARS = 40           # characters of a token shown as a chart label (the rest: …)
