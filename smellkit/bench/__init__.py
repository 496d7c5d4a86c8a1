"""Building benchmarks: discover → inject → validate → sample → export (`smellkit build SPEC`)."""

from smellkit.bench.pipeline import Progress, build, load_dataset

__all__ = ["Progress", "build", "load_dataset"]
