import { runMain } from '@pay/runtime';
import { readConfig } from './config';
import { startService } from './service';

/** `npm start`: the whole service in one process. SIGTERM or SIGINT shuts it down gracefully. */
runMain(async () => startService(readConfig()));
