"""Confinement of student code: namespaces, Landlock, rlimits, the environment allow-list, memory cgroups, bubblewrap around the zygote, and the check of what this machine has."""
