"""``trustscore serve``: vLLM servers for the endpoints of a config (:mod:`.servers`), each one a child
process (:mod:`.process`)."""
