import { clockContract } from 'visualizer/testing';
import systemClockPlugin from '../plugins/clock-system/index.ts';
import { pluginContext } from '../kit/testing/plugin-context.ts';

// The system clock has no factory of its own: the plugin's register makes it.
clockContract({ name: 'system', create: async () => (await systemClockPlugin.register(pluginContext({}))).clock });
