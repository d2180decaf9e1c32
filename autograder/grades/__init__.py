"""Where grades are kept and what is made of them for people: nbgrader's gradebook, the attempts on receipt, the feedback pages and the class report."""
