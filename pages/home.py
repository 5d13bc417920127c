"""Overview: the sentence as tokens and ids, the model's sizes, a first heatmap of h_t."""
from ui import session, teacher
from ui.sections import home

session.start_page()  # the language and sidebar first, also when the page runs alone (a deep link)
home.intro()
cur = session.current()
home.guide(cur)
home.tokens(cur)
home.sizes(cur)
home.heatmap(cur)
home.next_pages()
teacher.create_box()  # a teacher makes a class here: its student and teacher links
