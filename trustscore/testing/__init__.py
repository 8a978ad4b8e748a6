"""trustscore's public test kit (fake vLLM server, in-process router, pytest fixtures)."""
