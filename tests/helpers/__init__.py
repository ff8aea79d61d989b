"""What the tests share: test doubles, tiny models, stand-in servers, workflow runs."""
