"""What the course configures: nbgrader_config.py as nbgrader reads it, every `c.Autograder.*` setting with its help, and the limits carried to the judges and the children."""
