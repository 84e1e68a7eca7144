"""pitui.core: read, understand and write pi session files. Imports neither Textual nor Rich."""
