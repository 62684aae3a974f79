import { createBreeScheduler } from '../plugins/scheduler-bree/bree-scheduler.ts';
import { schedulerContract } from './contract/scheduler.ts';

schedulerContract('bree', (logger) => createBreeScheduler({ logger }));
