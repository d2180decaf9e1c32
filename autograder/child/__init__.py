"""What runs beside student code, in the zygote and the sandboxed children: the shell that runs cells and serves requests, and the guard. Nothing they send is trusted."""
