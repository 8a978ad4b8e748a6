"""Base utilities every layer may use: size-capped file reading, canonical JSON and content hashes,
the safe on-disk store under the caches, the values command-line flags take."""
