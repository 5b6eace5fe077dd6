"""Small SEI engines for tests: well-behaved instant engines and a gallery of misbehaviour."""
