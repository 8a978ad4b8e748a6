"""Small building blocks every room of trustscore may use (nothing here imports a room)."""
