"""The course package: checks with friendly messages, quiz helpers, device helpers, pictures, toy data.

It holds no answers: everything here is also shipped to students.
"""

__version__ = "0.1.0"
