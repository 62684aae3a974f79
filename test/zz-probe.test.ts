import { after } from 'node:test';
import { createBreeScheduler } from '../plugins/scheduler-bree/bree-scheduler.ts';
import { schedulerContract } from './contract/scheduler.ts';
schedulerContract('bree', (logger) => createBreeScheduler({ logger }));
after(() => { setTimeout(() => console.error('ACTIVE', JSON.stringify(process.getActiveResourcesInfo())), 500).unref(); });
