"""The memory drivers: Mycelian's own contract (embedded service or a real stack) and a server
driven through a tool mapping; `open_driver` starts or reaches the run's server and picks one."""
