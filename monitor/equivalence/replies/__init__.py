"""The facts of a reply: extraction from free text and gold facts found (or not) in a predicted reply."""
