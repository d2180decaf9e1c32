"""The instructor's references: code that computes expected answers for hidden tests.

This package is never shipped to students (the student bundle carries `course` only), and the grader's
sandbox cannot read it: hidden tests import it in the judge, which never runs student code.
"""
