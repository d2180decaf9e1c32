"""An nbgrader exchange that runs as a JupyterHub service.

Students and graders reach it over HTTP with the tokens the hub gives their servers; it takes who is
asking from the token and the time from its own clock, and it never overwrites or deletes what it has
received. `service` is the server (run by the hub, as an account nobody else can write into), `store`
its append-only storage, `policy` the deadlines and which submission is collected, `plugin` the
nbgrader exchange classes that talk to it, `hubconfig` the hub settings that wire it in.
"""
