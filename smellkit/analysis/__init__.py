"""What detectors, injectors and scoring share: the `Context` facade over a project's analyses,
name usage, attribute access, string keys and locations."""
