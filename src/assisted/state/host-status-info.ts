/**
 * Host status-info texts, exactly as upstream writes them (`internal/host/common.go`,
 * `internal/host/transition.go`; assisted.md §4.1). `$FAILING_VALIDATIONS`, `$STAGE`,
 * `$MAX_TIME` and `$INSTALLATION_DISK` are filled in by `renderHostStatusInfo`.
 */
export const HostStatusInfo = {
  mediaDisconnected:
    'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed',
  disconnected: 'Host has stopped communicating with the installation service',
  discovering: 'Waiting for host to send hardware details',
  insufficientHardware:
    'Host does not meet the minimum hardware requirements: $FAILING_VALIDATIONS',
  pendingForInput: 'Waiting for user input: $FAILING_VALIDATIONS',
  notReadyForInstall:
    'Host cannot be installed due to following failing validation(s): $FAILING_VALIDATIONS',
  preparationTimeout:
    'The host has encountered a preparation timeout, the following conditions failed: $FAILING_CONDITIONS',
  preparationTimeoutDiskSpeed:
    'the installation disk speed check did not complete within the timeout.',
  preparationTimeoutImageAvailability:
    'container availability was not determined within the timeout.',
  known: 'Host is ready to be installed',
  installing: 'Installation is in progress',
  resettingPendingUserAction:
    'Host requires booting into the discovery image to complete resetting the installation',
  /** Defined upstream but never written: entering preparing writes `preparationSuccessful`. */
  preparingForInstallation: 'Host is preparing for installation',
  preparationSuccessful: 'Host finished successfully to prepare for installation',
  preparationFailure:
    'Host failed to prepare for installation due to following failing validation(s): $FAILING_VALIDATIONS',
  abortingDueClusterErrors: 'Host is part of a cluster that failed to install',
  installationTimedOut: 'Host failed to install due to timeout while starting installation',
  connectionTimedOutInstalling:
    'Host failed to install due to timeout while connecting to host during the installation phase.',
  connectionTimedOutPreparing:
    'Host failed to install due to timeout while connecting to host during the preparation phase.',
  stageTimedOut:
    'Host failed to install because its installation stage $STAGE took longer than expected $MAX_TIME',
  /** Writing image to disk and copying registry data share this text upstream. */
  stageNotProgressing:
    'Host failed to install because its installation stage $STAGE did not sufficiently progress in the last $MAX_TIME.',
  readyToBeBound: 'Host is ready to be bound to a cluster',
  binding: 'Host is waiting to be bound to the cluster',
  rebootTimeout:
    'Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk $INSTALLATION_DISK and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API',
  pendingUserActionTimeout:
    'Host failed to boot from the installation disk within the expected time.',
  unbinding: 'Host is waiting to be unbound from the cluster',
  rebootingForReclaim: 'Host is rebooting into the discovery image',
  restartedDuringInstallation: 'The host unexpectedly restarted during the installation',
  wrongBootOrder:
    'Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk',
  /** The default reason of HostInstallationFailed (upstream HandleInstallationFailure). */
  installationCommandFailed: 'installation command failed',
  /** The reason the cancel API gives hosts and clusters. */
  cancelledByUser: 'Installation was cancelled by user',
} as const;

/** Refusal texts of the host machine (upstream wording). */
export const HostRefusalReason = {
  noTransition: 'no condition found to run transition',
  registerAfterInstallation:
    'Host is trying to register after the cluster has already been installed. That most probably means that the host is booting from the installation ISO, and therefore not effectively joining the cluster. The request will be ignored. Fix the boot order and reboot the host.',
  bootFromDisk: 'Host is required to be booted from disk $INSTALLATION_PATH',
} as const;

/** Upstream truncates status info to fit its `varchar(2048)` column. */
export const STATUS_INFO_MAX_LENGTH = 2040;
