"""The Scorer's parts, one job each: input checks, the context signal factories get, building the
sources from the registry, running one source safely, and scoring many samples."""
