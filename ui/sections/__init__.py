"""Page sections: small functions of explicit arguments (no page globals), one module per page.

A page in pages/ is a table of contents that calls them in order; see ui/README.md."""
