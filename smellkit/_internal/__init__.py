"""Process machinery no user imports: the collector pause, forked workers, entry-point plugins."""
