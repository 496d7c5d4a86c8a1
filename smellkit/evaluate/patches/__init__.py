"""Patches as scoring meets them: read what a patch changes, refuse what escapes or tampers,
apply it to a copy, and diff two folders into a patch."""
