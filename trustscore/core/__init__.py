"""Base utilities every layer may use: size-capped file reading, canonical JSON and content hashes."""
