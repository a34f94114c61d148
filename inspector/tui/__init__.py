"""The Textual face of the inspector."""
