import { Init1763740000000 } from './1763740000000-Init';
import { SubmodelsConceptDescriptions1763900000000 } from './1763900000000-SubmodelsConceptDescriptions';
import { ElementLocator1763900000001 } from './1763900000001-ElementLocator';
import { DocumentBytes1764000000000 } from './1764000000000-DocumentBytes';
import { Management1764100000000 } from './1764100000000-Management';
import { Files1764200000000 } from './1764200000000-Files';
import { AasxPackages1764300000000 } from './1764300000000-AasxPackages';
import { FilesHeldBy1764400000000 } from './1764400000000-FilesHeldBy';
import { Registries1764500000000 } from './1764500000000-Registries';
import { FilterQueries1764650000000 } from './1764650000000-FilterQueries';
import { ElementRows1764700000000 } from './1764700000000-ElementRows';
import { ShellSubmodelIds1764800000000 } from './1764800000000-ShellSubmodelIds';
import { ShellSubmodelIdsIndex1764900000000 } from './1764900000000-ShellSubmodelIdsIndex';
import { EventDelivery1765000000000 } from './1765000000000-EventDelivery';
import { PushTargets1765100000000 } from './1765100000000-PushTargets';
import { TransportDelivery1795740071316 } from './1795740071316-TransportDelivery';
import { AccountTokensRevoked1795741054131 } from './1795741054131-AccountTokensRevoked';
import { FileReferences1795764566655 } from './1795764566655-FileReferences';
import { KeysLeadWithTenant1795776275594 } from './1795776275594-KeysLeadWithTenant';
import { TenantQueues1795776496925 } from './1795776496925-TenantQueues';
import { DistributeOnCitus1795776900000 } from './1795776900000-DistributeOnCitus';
import { IdentityProviderSignIn1795785064867 } from './1795785064867-IdentityProviderSignIn';
import { ServerSecrets1795790000000 } from './1795790000000-ServerSecrets';
import { ElementWriteChain1795800000000 } from './1795800000000-ElementWriteChain';
import { NeededAasVersion1795810000000 } from './1795810000000-NeededAasVersion';
import { SemanticConnector1795820000000 } from './1795820000000-SemanticConnector';

/** Every migration, in order. A landed migration is never edited; a schema change is a new file here. */
export const migrations = [Init1763740000000, SubmodelsConceptDescriptions1763900000000, ElementLocator1763900000001, DocumentBytes1764000000000, Management1764100000000, Files1764200000000, AasxPackages1764300000000, FilesHeldBy1764400000000, Registries1764500000000, FilterQueries1764650000000, ElementRows1764700000000, ShellSubmodelIds1764800000000, ShellSubmodelIdsIndex1764900000000, EventDelivery1765000000000, PushTargets1765100000000, TransportDelivery1795740071316, AccountTokensRevoked1795741054131, FileReferences1795764566655, KeysLeadWithTenant1795776275594, TenantQueues1795776496925, DistributeOnCitus1795776900000, IdentityProviderSignIn1795785064867, ServerSecrets1795790000000, ElementWriteChain1795800000000, NeededAasVersion1795810000000, SemanticConnector1795820000000];
