"""Scoring predictions: read them (`predictions`), read the cases they answer (`dataset`), and
apply each patch to an isolated copy of the smelly repository (`apply`) before anything runs."""
