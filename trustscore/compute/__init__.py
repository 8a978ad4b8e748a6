"""Local compute support: the score budget in worker threads, one-thread model lanes, torch import and
quiet model loading."""
