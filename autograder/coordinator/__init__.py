"""The instructor's process in a grading run: plans the jobs, hands them to a pool, and alone writes the records, autograded/ and the gradebook."""
