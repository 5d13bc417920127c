"""Overview: the sentence as tokens and ids, the model's sizes, a first heatmap of h_t."""
from ui import session
from ui.sections import home

home.intro()
cur = session.current()
home.guide(cur)
home.tokens(cur)
home.sizes(cur)
home.heatmap(cur)
home.next_pages()
