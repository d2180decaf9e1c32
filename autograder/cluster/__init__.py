"""Grading on a Dask cluster: the coordinator's client, and on each Dask worker a warm judge pool in a process of its own."""
