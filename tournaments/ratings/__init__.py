"""Ratings: Elo per pool, its rebuild, and the statistics behind performance tables."""
