"""The boundary between a judge and its child: frames, plain-data values, sealed evidence and the operations each side may ask for."""
