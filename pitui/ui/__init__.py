"""The Textual app: the only layer of pitui that imports Textual."""
