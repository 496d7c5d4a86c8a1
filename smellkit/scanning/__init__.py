"""The scan use case: a full scan, the incremental re-scan that patches a report, baselines.

(`smellkit.scan` is the function; this package is named for the activity so the two never clash.)
"""
