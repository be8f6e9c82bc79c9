"""What the tests and the benchmarks share: a local webhook receiver, content seeding, the edge
cache in front of the API, free ports, a fake clock, and the soak and crash runs (`make soak`,
`make crash`, and their quick versions in the integration tests).

Neither `tests` nor `bench` imports the other; both import from here.
"""
