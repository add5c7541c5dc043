"""The Lab page: experiments on tools' words."""
