"""The trusted side of a grading machine: the judge processes, which grade one notebook at a time by driving a sandboxed child and running the instructor's tests, and never run student code."""
