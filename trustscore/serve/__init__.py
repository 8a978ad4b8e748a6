"""``trustscore serve``: vLLM servers for the endpoints of a config (servers), one server as a child
process (process)."""
