"""One server against another view of it: two versions (diff), every revision (matrix),
its registry description (card)."""
