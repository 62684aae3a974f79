// Bree runs every job in a worker thread, and the tsx loader that runs our TypeScript does not reach
// worker threads, so this job is plain JavaScript. It does no work itself: the tasks need the main
// thread's database pool and container, so it only tells the parent which task is due and ends.
import { parentPort, workerData } from 'node:worker_threads';

parentPort?.postMessage({ due: workerData?.task });
parentPort?.postMessage('done');
