"""Human-readable renderings of results: terminal tables (and later HTML and plots)."""
