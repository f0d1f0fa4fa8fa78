import './runners/tasks/run-tests.js'; process.exitCode = 2;
