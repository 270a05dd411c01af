"""What is a person's to decide: ralph.yaml and the settings, the test baseline."""
