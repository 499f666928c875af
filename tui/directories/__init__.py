"""Settings › Authentication › Directories: the list, the generated forms and the rule panels."""
