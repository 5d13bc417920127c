"""Glossary: the course's terms in English and 中文, what they mean, where the notes and the
pages use them."""
from ui import session
from ui.sections import glossary

session.current()  # the sidebar's sentence checked here too (a bad one is explained on every page)
glossary.intro()
glossary.table()
glossary.pages()
