"""Data formats of other tools that smellkit reads and writes (SmellBench's instances), shared by
the build's export and scoring's import."""
